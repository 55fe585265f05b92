module github.com/omnik-dev/omnik

go 1.26.8
