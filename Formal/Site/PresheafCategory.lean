import Formal.Category.Basic
import Formal.Site.Presheaf

/-!
# Presheaves on a poset form a category

Belfiore & Bennequin (arXiv 2106.14587 v3, §1.3, Prop. 1.1) work in the category of presheaves on
the poset `X` of a network. This file packages `Formal/Site/Presheaf.lean` (presheaves, natural
transformations, `PSh.id_comp`, `PSh.comp_id`, `PSh.assoc`) as an instance of the library's
`Formal.CategoryTheory.Category` (claim `BB.PSh.category`). That this category is a topos is not
proved here.
-/

namespace Formal.Site

universe u v

/-- `BB.PSh.category`: presheaves on a poset, with natural transformations, form a category. -/
instance presheafCategory (α : Type u) [Poset α] :
    Formal.CategoryTheory.Category.{max u v} (Presheaf.{u, v} α) where
  Hom := fun P Q => PSh.Hom P Q
  id := fun P => PSh.id P
  comp := fun f g => PSh.comp f g
  id_comp := fun f => PSh.id_comp f
  comp_id := fun f => PSh.comp_id f
  assoc := fun f g h => PSh.assoc f g h

end Formal.Site
