/* Placeholder for the prover benchmark; returns 0. */
int
main(void)
{
	return 0;
}
