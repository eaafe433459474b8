"""One module per upstream scheduler plugin, named after it."""
