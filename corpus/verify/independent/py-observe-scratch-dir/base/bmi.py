def bmi_class(weight_kg, height_m):
    """WHO class of the body-mass index: 'under' < 18.5 <= 'normal' < 25 <= 'over' < 30 <= 'obese'."""
    bmi = weight_kg / height_m ** 2
    if bmi < 18.5:
        return "under"
    if bmi < 25:
        return "normal"
    return "over"
