module github.com/jsprof/jsprof

go 1.26.8
