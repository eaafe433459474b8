"""Reports: the model built from scheduling records, and one module per output format."""
