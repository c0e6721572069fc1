"""What a table's status page (:mod:`board_pi.web`) and the club's hub (:mod:`board_pi.club`)
serve alike: a request's body read and refused with a clear message (:mod:`.requests`), the
director's sign-in (:mod:`.signin`: the PIN kept by :mod:`.store`, wrong guesses locked out by
:mod:`.guard`), and the count of live streams (:mod:`.streams`). The two apps are rooms side by
side, neither importing the other; this is the floor they share."""
