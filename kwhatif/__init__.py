"""kwhatif: a dry-run of the Kubernetes scheduling framework over a cluster snapshot."""

import os as _os

# numpy's OpenBLAS starts a pool of worker threads when it is imported, and they spin for tens of
# milliseconds of CPU (60 to 100 ms measured on 2 cores) though kwhatif never calls a BLAS routine:
# its numpy work is element-wise. One thread, unless the environment says otherwise.
_os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
