"""Wire handlers of crawlers and classifiers."""
