tests/golden/no-such-file.sg
