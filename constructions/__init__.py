"""bilinear.constructions"""
