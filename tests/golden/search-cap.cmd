tests/golden/data/mlp-cap.sg --memory 440000000 --bind b=16384
