"""`make demo`: a tour of the embedded catalog (replaced by the daily pipeline later)."""
