/* Placeholder for the prove_batch example; returns 0. */
int
main(void)
{
	return 0;
}
