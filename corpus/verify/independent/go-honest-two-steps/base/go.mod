module example.com/rle

go 1.19
