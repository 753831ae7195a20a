// Block comments do not nest: the first */ ends the comment.
/* outer /* inner */ trace("after the first close");
