tests/golden/data/ffn-noloss.sg --bind b=8 --rank 1
