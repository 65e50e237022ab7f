examples/seqpar.sg
