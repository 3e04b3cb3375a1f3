-- Layer syntax and semantics (issue: the spine)
import Formal.Network.Scalar
import Formal.Network.Tensor
import Formal.Network.Shape
import Formal.Network.Arch
import Formal.Network.Laws
import Formal.Network.Derived

-- The Zoo: the single catalogue of emitted layers
import Formal.Zoo.MLP
import Formal.Zoo.Attention
import Formal.Zoo.EncoderBlock
import Formal.Zoo.GLU
import Formal.Zoo.HyperLinear
import Formal.Zoo.MoE

-- IMPORTS: categorical core (Formal/Category, Formal/Fam, Formal/Para)

-- IMPORTS: PL fragment and the transformer claims (Formal/PL, Formal/Attention, Formal/Gap)

-- IMPORTS: sites, sieves and presheaves (Formal/Site)

-- The claims ledger (imports what it cites)
import Formal.Claims

/-! Root of the `Formal` library: imports every module, so that `lake build` checks them all.
The static audit (`pybridge audit`) fails when a file under `Formal/` is missing here. -/
