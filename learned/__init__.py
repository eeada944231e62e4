"""bilinear.learned"""
