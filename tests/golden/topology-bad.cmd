examples/ffn.sg --topology tests/golden/data/bad.topo
