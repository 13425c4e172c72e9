"""Page reads: querysets and plain values built from them, a constant number of queries each."""
