"""Scale-down: placeholder replaced below."""
