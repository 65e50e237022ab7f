examples/ffn.sg --topology tests/golden/data/two-nodes.topo --rank-table tests/golden/data/rank_table.json
