"""What every domain app shares, below all of them."""
