examples/ffn.sg --rank-table tests/golden/data/rank_table.json
