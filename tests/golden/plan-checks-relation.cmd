tests/golden/data/plan-checks.sg --bind b=4,s=128,t=300,u=1
