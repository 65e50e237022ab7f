tests/golden/data/plan-checks.sg --bind b=4,s=128 --bind t=256 --bind u=1 --rank 1
