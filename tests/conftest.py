import sys
from pathlib import Path

# tests/ holds shared helpers (builders, fidelity) imported by name.
sys.path.insert(0, str(Path(__file__).resolve().parent))
