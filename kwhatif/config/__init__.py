"""The scheduler's configuration (kubescheduler.config.k8s.io/v1), split as upstream's
pkg/scheduler/apis/config: types (the profiles and the typed args of every plugin that has an
args kind), the document reader, the v1 decoder, v1 defaults, the conversion of v1 args into
their typed form, validation, and Go's field-error wording. ``load`` reads a file through all of
them; ``options`` holds how a what-if run behaves beyond its profiles.
"""
