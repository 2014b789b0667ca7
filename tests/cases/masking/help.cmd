masking --help
