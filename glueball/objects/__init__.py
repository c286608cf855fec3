"""The object store: ``s3://`` locations over ``$GLUEBALL_HOME/s3`` (see :mod:`glueball.objects.locations`)."""
