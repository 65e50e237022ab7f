examples/redist_all.sg
