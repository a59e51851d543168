def isbn10_check_digit(first9):
    """Check digit ('0'-'9' or 'X') for the first nine digits of an ISBN-10."""
    raise NotImplementedError
