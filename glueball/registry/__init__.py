"""The schema registry: versioned schemas with compatibility, the wire format, and the Confluent REST surface."""
