examples/layout.sg --draw x=$out/layout-x.svg --draw y=$out/layout-y.svg
