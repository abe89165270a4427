# fragment of Makefile.am
