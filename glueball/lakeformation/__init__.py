"""Lake Formation's permission calls, answered as an account that does not use Lake Formation answers them."""
