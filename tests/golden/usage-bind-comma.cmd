examples/ffn.sg --bind 'b=8,'
