module github.com/legalfuzz/legalfuzz

go 1.26.0
