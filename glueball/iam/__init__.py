"""Identity: STS (and, with the identity work, IAM users, roles and policies)."""
