examples/layout.sg --draw x=$out/draw-unwritable-x.svg --draw y=tests/golden/no-such-dir/y.svg
