"""The output formats: one module per format, each a Formatter that renders the report models and
computes nothing about scheduling; output.py maps an OutputFormat to its formatter."""
