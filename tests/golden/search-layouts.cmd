tests/golden/search-mlp.sg --topology tests/golden/data/two-nodes.topo
