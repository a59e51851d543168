def nth_prime(n):
    """The n-th prime, 1-based: nth_prime(1) == 2."""
    raise NotImplementedError
