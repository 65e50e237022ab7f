tests/golden/search-optshard.sg --memory 64MiB
