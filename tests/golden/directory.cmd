tests/golden
