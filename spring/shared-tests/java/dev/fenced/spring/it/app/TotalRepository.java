package dev.fenced.spring.it.app;

import org.springframework.data.jpa.repository.JpaRepository;

/** Spring Data JPA over the protected table. */
public interface TotalRepository extends JpaRepository<Total, Integer> {
}
