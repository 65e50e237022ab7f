tests/golden/data/mlp-cap.sg --memory 400000000 --bind b=16384
