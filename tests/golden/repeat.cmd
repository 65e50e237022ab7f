tests/golden/data/repeat.sg --draw x=$out/repeat-x.svg
