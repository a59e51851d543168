module example.com/slug

go 1.19
