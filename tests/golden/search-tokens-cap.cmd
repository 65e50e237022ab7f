tests/golden/search-tokens.sg --memory 400MiB
