module example.com/table

go 1.19
