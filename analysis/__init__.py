"""bilinear.analysis"""
