"""The site of a real network (Belfiore & Bennequin, *Topos and Stacks of Deep Neural Networks*, §1).

Pipeline: a ``torch.fx``-traceable model -> the layer graph Γ (:mod:`pybridge.site.graph`) -> the fork
category C and its poset X (:mod:`pybridge.site.fork`) -> the subobject classifier Ω of the presheaf
topos on X (:mod:`pybridge.site.omega`) -> the activity presheaf (:mod:`pybridge.site.presheaf`),
backpropagation as path sums (:mod:`pybridge.site.backprop`), the weight presheaf with the forward
pass and one learning step as natural transformations (:mod:`pybridge.site.weights`) and equivariance
defects (:mod:`pybridge.site.equivariance`).

Orientation, used everywhere in this package: Γ's edges follow the data flow (``u -> v`` when ``v``
reads ``u``); C's arrows go against it (``v -> u``), as in the paper; in the poset X, ``x <= y`` when
C has an arrow ``x -> y``. So the outputs sit at the bottom, the inputs and the fork objects ``A`` at
the top; a presheaf ``F`` restricts from ``y`` down to ``x <= y``, i.e. along the data flow.
"""
