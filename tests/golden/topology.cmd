examples/ffn.sg --topology tests/golden/data/two-nodes.topo
