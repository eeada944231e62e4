"""bilinear.automata"""
