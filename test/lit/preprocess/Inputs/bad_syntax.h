// A header with a syntax error: diagnostics name the header and its own line.
int from_header = 1
