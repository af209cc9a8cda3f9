package dev.fenced.spring.it.app;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A row of the protected table {@code totals}, through JPA (the fence column is fenced's, not mapped). */
@Entity
@Table(name = "totals")
public class Total {

    @Id
    @Column(name = "restaurant_id")
    private Integer restaurantId;

    private long amount;

    public Integer getRestaurantId() {
        return restaurantId;
    }

    public long getAmount() {
        return amount;
    }

    public void setAmount(long amount) {
        this.amount = amount;
    }
}
