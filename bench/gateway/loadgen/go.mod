module platform.local/loadgen

go 1.22
